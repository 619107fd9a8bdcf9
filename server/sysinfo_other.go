//go:build !unix

package server

// maxFDs is 0 where there is no file-descriptor limit to read (Windows):
// mntr's zk_max_file_descriptor_count then says "unknown", as
// ZooKeeper's does on a JVM that cannot tell.
func maxFDs() uint64 { return 0 }
