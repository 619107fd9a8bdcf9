package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// entry is one file of an archive: its path inside the archive, the file
// it is read from, and the mode it is given there.
type entry struct {
	name string
	src  string
	mode fs.FileMode
}

// writeTarGz writes dir/ and the entries, in the order given, as a gzipped
// tar whose every header carries mtime and owner 0.
func writeTarGz(w io.Writer, dir string, entries []entry, mtime time.Time) error {
	gz := gzip.NewWriter(w) // no name and no time in the gzip header
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: path.Join(dir, e.name), Mode: int64(e.mode),
			Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes dir/ and the entries, in the order given, as a zip
// whose every entry carries mtime.
func writeZip(w io.Writer, dir string, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	hdr := &zip.FileHeader{Name: dir + "/", Method: zip.Store, Modified: mtime}
	hdr.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(hdr); err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: path.Join(dir, e.name), Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(e.mode)
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}
