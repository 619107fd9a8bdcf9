package server

import (
	"io/fs"
	"os"
	"path/filepath"
)

// openFDs counts this process's open file descriptors (0 where /proc is
// missing), for mntr's zk_open_file_descriptor_count.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(entries)
}

// dirSizes returns the bytes under dataDir and dataLogDir (0 in memory),
// for the dirs and conf four-letter words.
func (s *Server) dirSizes() (data, log int64) {
	return dirSize(s.cfg.DataDir), dirSize(s.cfg.DataLogDir)
}

func dirSize(dir string) int64 {
	if dir == "" {
		return 0
	}
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}
