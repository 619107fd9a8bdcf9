package jaas

import "os"

// SystemProperties returns a lookup for Parse that expands ${name} as the
// JVM would for the system properties a ZooKeeper operator is likely to use
// in a JAAS file: those given with -D (props) first, then user.home,
// user.dir, java.io.tmpdir and file.separator.
func SystemProperties(props map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := props[name]; ok {
			return v, true
		}
		switch name {
		case "user.home":
			h, err := os.UserHomeDir()
			return h, err == nil
		case "user.dir":
			d, err := os.Getwd()
			return d, err == nil
		case "java.io.tmpdir":
			return os.TempDir(), true
		case "file.separator":
			return string(os.PathSeparator), true
		}
		return "", false
	}
}
