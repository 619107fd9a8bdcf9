// Package faultnet is a server-to-server network for in-process ensembles
// that can break on demand: cut links between groups of servers
// (partitions), kill every link of one server (a crash), and slow a link
// down or make it lossy. Each server dials and listens through its own
// consensus.Network (Network.For); client connections do not go through
// it.
//
// It is shared by the test harness (package integration) and the lab
// (package lab, started by cmd/zklab); it must not import either, nor
// server: it knows only addresses, server indexes and net.Conn.
package faultnet
