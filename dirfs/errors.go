package dirfs

import "errors"

// ErrLink is the error, wrapped in an [*fs.PathError] naming the whole
// name asked for, of an operation on a name that meets a symbolic link: in
// any element before the last, or as the last element for every operation
// but [FS.Lstat] and [FS.ReadLink]. Test it with errors.Is.
var ErrLink = errors.New("dirfs: name must not cross a symbolic link")
