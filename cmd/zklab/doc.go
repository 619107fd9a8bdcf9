// Command zklab runs a zkraft ensemble in one process for people to break
// on purpose (`make lab`): three servers (-n 5 for five) on 127.0.0.1,
// data in a temporary directory, each with its web console, whose lab
// section kills, restarts, partitions and heals servers, slows links and
// starts a client write load (package lab, docs/console.md "Lab"). It
// prints each server's console URL and client address, and stops
// everything on Ctrl-C.
//
// The lab's controls exist only in this command: zkserver never
// registers them.
package main
