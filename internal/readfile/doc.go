// Package readfile reads the files that a tenant controls, within bounds. It holds the two
// halves of pathpattern.ReadFile, [CheckPath] (each element of a name, with fs.Lstat) and
// [Read] (the opened file, checked again and read whole into a reusable buffer), so that
// package generator can read the files that pathpattern.Glob selected with Read alone: Glob
// checked their elements when it listed their directories (generator's BenchmarkPlan through
// dirfs). [ReadChecked] is the two in turn, as pathpattern.ReadFile calls them.
//
// The errors are pathpattern's: [ErrNotRegular] and [ErrTooLarge] are the values it exports,
// and [Errorf] makes the errors that name a rule, for these and for its other checks. The
// functions are safe for concurrent use as far as the file system is.
package readfile
