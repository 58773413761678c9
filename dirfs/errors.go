package dirfs

import "errors"

// ErrLink is wrapped in the [*fs.PathError], naming the whole name, of an operation on a name
// that meets a symbolic link before the last element, or as the last for every operation but
// [FS.Lstat] and [FS.ReadLink].
var ErrLink = errors.New("dirfs: name must not cross a symbolic link")
