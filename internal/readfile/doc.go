// Package readfile reads the files that a tenant controls, within bounds. It holds the two
// halves of pathpattern.ReadFile, so that package generator can read the files that
// pathpattern.Glob selected with the second half alone:
//
//   - [CheckPath] checks every element of a name with fs.Lstat: each a directory reached
//     without a symbolic link, the last a regular file of at most the limit;
//   - [Read] opens the name, checks the opened file again (it may have been replaced since)
//     and reads it whole, refusing more than the limit, into a buffer the caller may reuse.
//
// A name that Glob returned has passed CheckPath's checks already, when Glob listed its
// directories: a plan reads the files of its copies with Read alone, each artifact's into one
// buffer, rather than checking each name again (generator's BenchmarkPlan through dirfs).
// [ReadChecked] is the two in turn, as pathpattern.ReadFile calls them; on a file system whose
// Open refuses links itself ([RefusesLinks]) it reads first, with the same result.
//
// The errors are pathpattern's: [ErrNotRegular] and [ErrTooLarge] are the values it exports,
// and [Errorf] makes the errors that name a rule, for these and for its other checks. The
// functions are safe for concurrent use as far as the file system is.
package readfile
