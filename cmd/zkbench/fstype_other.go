//go:build !linux

package main

import "os"

// fsType returns "" (unknown) where zkbench does not read filesystem
// types, once path exists.
func fsType(path string) (string, error) {
	_, err := os.Stat(path)
	return "", err
}
