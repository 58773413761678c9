//go:build !linux

package generator

import "time"

// Elsewhere than on Linux, the benchmarks report neither CPU time nor peak
// memory (see benchsys_linux_test.go).

func syncFS()                {}
func cpuTime() time.Duration { return 0 }
func resetPeakRSS()          {}
func peakRSS() int64         { return 0 }
