//go:build !linux

package main

import (
	"errors"
	"syscall"
)

// bindNoPort: spreading connections over source addresses is Linux-only.
func bindNoPort(network, address string, c syscall.RawConn) error {
	return errors.New("-conns-sources above 1 needs Linux (IP_BIND_ADDRESS_NO_PORT)")
}

// raiseOpenFilesMost raises the limit as the other ops do.
func raiseOpenFilesMost(need uint64) (string, error) {
	return raiseOpenFiles(int(need) - stormSpareFiles)
}
