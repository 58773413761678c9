package hostile

import (
	"io/fs"
	"strings"
	"testing/fstest"
)

// Tree returns an in-memory tree below "tenants/" with the names a tenant can commit to a Git
// repository: directories whose names lowercase onto another's (Kelvin sign and dotted capital
// I included), hold a newline, a NUL or bytes that are not UTF-8, are 63 and 64 characters
// long, or start with a dash or a space; links to themselves, upwards and out of the tree; a
// pipe, a socket and a device where a directory could be, and a pipe at a literal segment.
func Tree() fstest.MapFS {
	dir := func() *fstest.MapFile { return &fstest.MapFile{Mode: fs.ModeDir | 0o755} }
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
	}
	long := func(n int) string { return "m" + strings.Repeat("x", n-2) + "m" }
	return fstest.MapFS{
		"tenants/team-a/modules/app":           dir(),
		"tenants/Team-A/modules/app":           dir(), // lowercases onto team-a
		"tenants/TEAM-A/modules/APP":           dir(), // and so does this one
		"tenants/team-\u212a/modules/app":      dir(), // Kelvin sign: Unicode lowercases it to k
		"tenants/\u0130stanbul/modules/app":    dir(), // dotted capital I
		"tenants/team\nb/modules/app":          dir(), // newline
		"tenants/team-c/modules/a\x00b":        dir(), // NUL, impossible on disk
		"tenants/team-c/modules/\xff":          dir(), // not UTF-8
		"tenants/team-c/modules/" + long(64):   dir(), // 64 characters
		"tenants/team-c/modules/" + long(63):   dir(),
		"tenants/team-c/modules/-dash":         dir(),
		"tenants/team-c/modules/ space":        dir(),
		"tenants/team-d/modules/loop":          link("loop"),
		"tenants/team-d/modules/up":            link("../.."),
		"tenants/team-d/modules/escape":        link("/etc"),
		"tenants/team-d/modules/pipe":          {Mode: fs.ModeNamedPipe},
		"tenants/team-d/modules/sock":          {Mode: fs.ModeSocket},
		"tenants/team-d/modules/dev":           {Mode: fs.ModeDevice},
		"tenants/team-e/modules":               {Mode: fs.ModeNamedPipe}, // a literal segment that is a pipe
		"tenants/team-a/modules/app/meta.yaml": {Data: []byte("x"), Mode: 0o644},
	}
}
