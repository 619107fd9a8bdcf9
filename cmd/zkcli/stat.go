package main

import (
	"fmt"
	"io"
	"time"

	"github.com/go-zookeeper/zk"
)

// javaDate formats milliseconds since the epoch as Java's Date.toString
// does, in the local time zone: "Thu Nov 26 19:13:32 UTC 2026".
func javaDate(ms int64) string {
	return time.UnixMilli(ms).Format("Mon Jan 02 15:04:05 MST 2006")
}

// printStat writes st as zkCli.sh's StatPrinter does.
func printStat(w io.Writer, st *zk.Stat) {
	fmt.Fprintf(w, "cZxid = 0x%x\n", uint64(st.Czxid))
	fmt.Fprintf(w, "ctime = %s\n", javaDate(st.Ctime))
	fmt.Fprintf(w, "mZxid = 0x%x\n", uint64(st.Mzxid))
	fmt.Fprintf(w, "mtime = %s\n", javaDate(st.Mtime))
	fmt.Fprintf(w, "pZxid = 0x%x\n", uint64(st.Pzxid))
	fmt.Fprintf(w, "cversion = %d\n", st.Cversion)
	fmt.Fprintf(w, "dataVersion = %d\n", st.Version)
	fmt.Fprintf(w, "aclVersion = %d\n", st.Aversion)
	fmt.Fprintf(w, "ephemeralOwner = 0x%x\n", uint64(st.EphemeralOwner))
	fmt.Fprintf(w, "dataLength = %d\n", st.DataLength)
	fmt.Fprintf(w, "numChildren = %d\n", st.NumChildren)
}
