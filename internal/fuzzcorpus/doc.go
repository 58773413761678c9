// Package fuzzcorpus writes the seed corpora of the module's fuzz targets.
//
// Each package with fuzz targets keeps their seed corpora in
// testdata/fuzz/<target>, one file per seed in the "go test fuzz v1"
// format that the go command reads, so that the seeds are files that
// fuzzing starts from and that crashers join. Plain go test runs those
// files as seeds of their targets.
//
// The corpora are generated from the packages' table tests: each package's
// TestFuzzCorpus collects its seeds and passes them to [Write]. It does so
// only when the environment variable TENANTKIT_WRITE_FUZZ_CORPUS is set
// (see [SkipUnlessWriting]); otherwise it is skipped and checks nothing.
// To regenerate the corpora of every package, from the module root:
//
//	TENANTKIT_WRITE_FUZZ_CORPUS=1 go test -run '^TestFuzzCorpus$' ./...
//
// or replace ./... by a package's path to regenerate only its corpora.
// Writing never deletes files: seeds no longer produced by the table tests,
// and crashers added by fuzzing, stay until removed by hand.
//
// The package is meant for tests only.
package fuzzcorpus
