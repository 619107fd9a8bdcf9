package treejson

import (
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// memServer is an in-memory stand-in for a ZooKeeper server, enough for
// Import: nodes with data, ACL and cversion; creates need the parent; a
// multi of create/delete pairs raises the parent's cversion.
type memServer struct {
	mu    sync.Mutex
	nodes map[string]*memNode
	multi int // multis run
}

type memNode struct {
	data     []byte
	acl      []zk.ACL
	cversion int32
	owner    int64
}

func newMemServer() *memServer {
	return &memServer{nodes: map[string]*memNode{"/": {acl: zk.WorldACL(zk.PermAll)}}}
}

func memParent(path string) string {
	p, _ := splitLast(path)
	return p
}

func (m *memServer) stat(n *memNode) *zk.Stat {
	return &zk.Stat{Cversion: n.cversion, EphemeralOwner: n.owner, DataLength: int32(len(n.data))}
}

func (m *memServer) Exists(path string) (bool, *zk.Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil {
		return false, nil, nil
	}
	return true, m.stat(n), nil
}

func (m *memServer) Get(path string) ([]byte, *zk.Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil {
		return nil, nil, zk.ErrNoNode
	}
	return append([]byte(nil), n.data...), m.stat(n), nil
}

func (m *memServer) GetACL(path string) ([]zk.ACL, *zk.Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil {
		return nil, nil, zk.ErrNoNode
	}
	return append([]zk.ACL(nil), n.acl...), m.stat(n), nil
}

// create adds a node under an existing parent; the caller holds mu.
func (m *memServer) create(path string, data []byte, acl []zk.ACL) error {
	if !strings.HasPrefix(path, "/") || path == "/" || strings.HasSuffix(path, "/") || strings.Contains(path, "//") {
		return zk.ErrInvalidPath
	}
	if m.nodes[path] != nil {
		return zk.ErrNodeExists
	}
	p := m.nodes[memParent(path)]
	if p == nil {
		return zk.ErrNoNode
	}
	p.cversion++
	m.nodes[path] = &memNode{data: append([]byte(nil), data...), acl: acl}
	return nil
}

func (m *memServer) Create(path string, data []byte, _ int32, acl []zk.ACL) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return path, m.create(path, data, acl)
}

func (m *memServer) CreateContainer(path string, data []byte, flag int32, acl []zk.ACL) (string, error) {
	return m.Create(path, data, flag, acl)
}

func (m *memServer) CreateTTL(path string, data []byte, flag int32, acl []zk.ACL, _ time.Duration) (string, error) {
	return m.Create(path, data, flag, acl)
}

func (m *memServer) Set(path string, data []byte, _ int32) (*zk.Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil {
		return nil, zk.ErrNoNode
	}
	n.data = append([]byte(nil), data...)
	return m.stat(n), nil
}

func (m *memServer) SetACL(path string, acl []zk.ACL, _ int32) (*zk.Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil {
		return nil, zk.ErrNoNode
	}
	n.acl = acl
	return m.stat(n), nil
}

// Multi runs create and delete requests; each raises the parent's
// cversion by one, as on a server.
func (m *memServer) Multi(ops ...interface{}) ([]zk.MultiResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.multi++
	for _, op := range ops {
		switch r := op.(type) {
		case *zk.CreateRequest:
			if err := m.create(r.Path, r.Data, r.Acl); err != nil {
				return nil, err
			}
		case *zk.DeleteRequest:
			if m.nodes[r.Path] == nil {
				return nil, zk.ErrNoNode
			}
			delete(m.nodes, r.Path)
			m.nodes[memParent(r.Path)].cversion++
		}
	}
	return make([]zk.MultiResponse, len(ops)), nil
}

func (m *memServer) cversion(path string) int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := m.nodes[path]; n != nil {
		return n.cversion
	}
	return -1
}
