//go:build linux

package server

import (
	"errors"
	"sync"
	"syscall"
)

// parker watches the sockets of parked connections with an epoll set of
// its own and resumes a connection's reader when its socket becomes
// readable or is closed. One goroutine per server waits in epoll_wait.
//
// Go's own poller is what a reader blocked in a read waits on, but only a
// goroutine can wait there; registering the descriptor in a second epoll
// set (allowed: a descriptor may be in several) lets a connection wait
// without one. Each registration is one-shot, so a wake-up resumes the
// reader once; the reader registers again when it next parks.
type parker struct {
	mu     sync.Mutex
	epfd   int
	wake   [2]int // a pipe: a byte on wake[1] stops the loop
	byFD   map[int32]*conn
	closed bool
}

// newParker returns a running parker, or nil when the kernel will not
// give one (connections then keep a reader goroutine while idle).
func newParker(s *Server) *parker {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	p := &parker{epfd: epfd, byFD: make(map[int32]*conn)}
	if err := syscall.Pipe2(p.wake[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		syscall.Close(epfd)
		return nil
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p.wake[0])}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, p.wake[0], &ev); err != nil {
		p.closeFDs()
		return nil
	}
	s.wg.Add(1)
	go p.loop(s)
	return p
}

// add registers c's socket, descriptor fd, for one wake-up. The caller
// holds the descriptor (syscall.RawConn.Control), so fd is c's.
func (p *parker) add(c *conn, fd int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || c.pk.gone {
		return errParkerClosed
	}
	if c.pk.fd >= 0 && c.pk.fd != int32(fd) && p.byFD[c.pk.fd] == c {
		delete(p.byFD, c.pk.fd)
	}
	c.pk.fd = int32(fd)
	p.byFD[c.pk.fd] = c
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT, Fd: int32(fd)}
	err := syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_MOD, fd, &ev)
	if errors.Is(err, syscall.ENOENT) { // first park, or a reused descriptor number
		err = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
	}
	return err
}

// remove forgets c for good (closing its socket took it out of the
// epoll set).
func (p *parker) remove(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.pk.gone = true
	if c.pk.fd >= 0 && p.byFD[c.pk.fd] == c {
		delete(p.byFD, c.pk.fd)
	}
}

// loop resumes the readers of connections whose sockets became readable.
// An event for a descriptor number that now belongs to another connection
// only makes that connection's reader look for input and park again.
func (p *parker) loop(s *Server) {
	defer s.wg.Done()
	defer p.closeFDs()
	events := make([]syscall.EpollEvent, 128)
	for {
		n, err := syscall.EpollWait(p.epfd, events, -1)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			s.log.Error("idle connection poller failed; parked connections are closed", "err", err)
			p.stop()
			p.resumeAll()
			return
		}
		for _, ev := range events[:n] {
			if int(ev.Fd) == p.wake[0] {
				return
			}
			p.mu.Lock()
			c := p.byFD[ev.Fd]
			p.mu.Unlock()
			if c != nil {
				c.resume()
			}
		}
	}
}

// stop makes the loop exit; parking fails from now on.
func (p *parker) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	syscall.Write(p.wake[1], []byte{0})
}

// resumeAll closes every parked connection (after a poller failure).
func (p *parker) resumeAll() {
	p.mu.Lock()
	conns := make([]*conn, 0, len(p.byFD))
	for _, c := range p.byFD {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

func (p *parker) closeFDs() {
	p.mu.Lock()
	defer p.mu.Unlock()
	syscall.Close(p.epfd)
	syscall.Close(p.wake[0])
	syscall.Close(p.wake[1])
	p.epfd, p.wake = -1, [2]int{-1, -1}
}
