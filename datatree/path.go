package datatree

import (
	"strings"
	"unicode/utf8"

	"github.com/zkraft/zkraft/wire"
)

// Paths ZooKeeper builds itself and never lets clients delete
// (DataTree.isSpecialPath).
const (
	rootPath   = "/"
	procPath   = "/zookeeper"
	quotaPath  = "/zookeeper/quota"
	configPath = "/zookeeper/config"
)

// ValidatePath applies ZooKeeper's PathUtils.validatePath and returns
// wire.CodeBadArguments for an invalid path. A valid path starts with '/',
// does not end with '/' (except "/" itself), has no empty, "." or ".."
// segment, and contains none of U+0000, U+0001-U+001F, U+007F-U+009F,
// U+D800-U+F8FF, U+FFF0-U+FFFF or characters outside the BMP (Java sees them
// as surrogates). Bytes that are not valid UTF-8 decode to U+FFFD in Java and
// are therefore invalid too.
func ValidatePath(path string) error {
	if path == "" || path[0] != '/' {
		return wire.CodeBadArguments
	}
	if len(path) == 1 {
		return nil
	}
	if path[len(path)-1] == '/' {
		return wire.CodeBadArguments
	}
	segStart := 1
	for i := 1; i < len(path); {
		r, size := utf8.DecodeRuneInString(path[i:])
		if r == '/' {
			if !validSegment(path[segStart:i]) {
				return wire.CodeBadArguments
			}
			segStart = i + 1
		} else if invalidPathRune(r) {
			return wire.CodeBadArguments
		}
		i += size
	}
	if !validSegment(path[segStart:]) {
		return wire.CodeBadArguments
	}
	return nil
}

// validSegment rejects the empty, "." and ".." segments.
func validSegment(s string) bool { return s != "" && s != "." && s != ".." }

// invalidPathRune reports the characters PathUtils.validatePath rejects.
// utf8.RuneError (U+FFFD) falls in the U+FFF0-U+FFFF range.
func invalidPathRune(r rune) bool {
	switch {
	case r <= 0x1f:
		return true
	case r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0xd800 && r <= 0xf8ff:
		return true
	case r >= 0xfff0:
		return true
	}
	return false
}

// splitPath returns the parent path and child name of path as ZooKeeper
// does with lastIndexOf('/'): the parent of "/a" is "" (the root alias).
// ok is false when path has no '/'.
func splitPath(path string) (parent, name string, ok bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// eventPath maps the root alias "" to "/", as DataTree does for the
// NodeChildrenChanged event of a child of the root.
func eventPath(parent string) string {
	if parent == "" {
		return rootPath
	}
	return parent
}

// isSpecialPath reports the paths delete and deleteContainer refuse.
func isSpecialPath(path string) bool {
	return path == rootPath || path == procPath || path == quotaPath || path == configPath
}

// javaLen is String.length() of a path: UTF-16 code units. Valid paths hold
// only BMP characters, so it is the rune count.
func javaLen(path string) int64 { return int64(utf8.RuneCountInString(path)) }

// javaLenBytes is javaLen of a path or name held as bytes.
func javaLenBytes(b []byte) int64 { return int64(utf8.RuneCount(b)) }
