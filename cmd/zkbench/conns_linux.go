package main

import (
	"fmt"
	"syscall"
)

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT (not in package
// syscall): bind picks the address now and the port only at connect, per
// destination, so a source address is not limited to the ephemeral range
// once across all destinations.
const ipBindAddressNoPort = 24

// bindNoPort is the dialer's Control for a connection from a chosen
// source address.
func bindNoPort(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

// raiseOpenFilesMost raises the soft open-files limit to need, or to the
// hard limit when need is above it and the hard limit cannot be raised
// (no CAP_SYS_RESOURCE): the servers zkbench starts inherit it, and then
// show where they stop. The note says what was done.
func raiseOpenFilesMost(need uint64) (string, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return "", err
	}
	old := lim
	if lim.Cur >= need {
		return fmt.Sprintf("open files limit %d (hard %d), enough for %d", lim.Cur, lim.Max, need), nil
	}
	lim.Cur, lim.Max = need, max(lim.Max, need)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
		return fmt.Sprintf("open files limit raised from %d (hard %d) to %d (setrlimit, inherited by the servers)", old.Cur, old.Max, need), nil
	} else if old.Max < need {
		lim = syscall.Rlimit{Cur: old.Max, Max: old.Max}
		if err2 := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err2 != nil {
			return "", err2
		}
		return fmt.Sprintf("open files limit: %d wanted, the hard limit %d cannot be raised (%v), soft limit set to %d: each process (zkbench, the server) holds fewer than %d sockets", need, old.Max, err, old.Max, old.Max), nil
	} else {
		return "", err
	}
}
