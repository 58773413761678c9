//go:build !linux

package generator

import "io/fs"

// view returns c: on systems other than Linux, a plan reads every name
// through its dirCache (see dirview_linux.go).
func (c *dirCache) view(dir string, parent dirDesc) (fs.FS, func()) { return c, func() {} }

// openDir returns noDir: see view.
func (c *dirCache) openDir(dir string) dirDesc { return noDir }

// openPrefix does nothing: see view.
func (c *dirCache) openPrefix(dir string) {}

// openBelow returns nil: see view.
func (c *dirCache) openBelow(rel, name string) fs.File { return nil }

// readDirBelow returns fs.ErrNotExist: see view.
func (c *dirCache) readDirBelow(rel, name string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }

// closeFD does nothing: openDir returns no descriptor.
func closeFD(fd int) {}
