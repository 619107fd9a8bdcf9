//go:build !linux

package server

// parker needs epoll; on other platforms an idle connection keeps its
// reader goroutine (newParker returns nil, so nothing parks).
type parker struct{}

func newParker(*Server) *parker { return nil }

func (p *parker) add(*conn, int) error { return errParkerClosed }

func (p *parker) remove(*conn) {}

func (p *parker) stop() {}
