// Package readfile reads the files that a tenant controls, within bounds. It holds the two
// halves of pathpattern.ReadFile, [CheckPath] and [Read], so that package generator can read
// the files that pathpattern.Glob selected, whose elements Glob checked, with Read alone
// (generator's BenchmarkPlan through dirfs). [ReadChecked] is the two in turn.
//
// The errors are pathpattern's: [ErrNotRegular] and [ErrTooLarge] are the values it exports,
// and [Errorf] makes the errors that name a rule, for these and for its other checks. The
// functions are safe for concurrent use as far as the file system is.
package readfile
