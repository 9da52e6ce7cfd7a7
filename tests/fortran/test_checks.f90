!> What the Fortran tests share: `expect` counts a check that failed on this rank and says which,
!> `finish_checks(banner)` ends a test: rank 0 prints "<banner>: K ranks, all checks passed" only
!> when no rank failed a check, and every rank stops with an error otherwise (so a failure on any
!> rank fails the run). `refused(s, code, fragment)`: a call failed with `code` and a message holding
!> `fragment`; `text_of(i)`: an integer as text.
module test_checks
  use mpi_f08
  use tessera, only: tessera_last_error
  implicit none
  private
  public :: expect, finish_checks, refused, text_of
  integer, save :: failures = 0

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    integer :: rank
    if (.not. condition) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      write(*, '(a, i0, a, a)') 'rank ', rank, ': failed: ', what
      failures = failures + 1
    end if
  end subroutine

  subroutine finish_checks(banner)
    character(*), intent(in) :: banner
    integer :: rank, nranks, all_failures
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. all_failures == 0) write(*, '(a, a, i0, a)') banner, ': ', nranks, ' ranks, all checks passed'
    if (all_failures /= 0) error stop 1
  end subroutine

  ! The message is read whatever the status, so that no impure call hides in a condition (where
  ! the compiler may skip it).
  logical function refused(s, code, fragment)
    integer, intent(in) :: s, code
    character(*), intent(in) :: fragment
    character(:), allocatable :: message
    message = tessera_last_error()
    refused = s == code .and. index(message, fragment) > 0
    if (s == code .and. .not. refused) write(*, '(a)') 'unexpected message: ' // message
  end function

  pure function text_of(i) result(text)
    integer, intent(in) :: i
    character(:), allocatable :: text
    character(24) :: buffer
    write(buffer, '(i0)') i
    text = trim(buffer)
  end function

end module
