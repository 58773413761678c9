package generator

import (
	"io/fs"
	"os"
)

// DirFS returns root.FS(): a plan reads every source through its own cache
// of the directories it has seen, whatever the file system (see dirCache).
func DirFS(root *os.Root) fs.FS { return root.FS() }
