// Package quote cuts the values that error messages show to a bounded length.
//
// An error that quotes a value a tenant wrote (a label value, an annotation of up to 256 KiB,
// a string reused through YAML aliases) must not grow with it (issue 18; nsmeta's
// TestParseFileExpansion): messages and field errors show a value through [Value], which keeps
// its first [MaxBytes] bytes and says how long it was.
//
// Value is a pure function, safe for concurrent use.
package quote
