//go:build unix

package cel

import "syscall"

// cpuTime returns the CPU time the process has used, in nanoseconds: on a
// machine shared with other work, a better measure of an evaluation's work
// than the wall-clock time, which waits for the CPU.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
