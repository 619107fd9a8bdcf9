package recipes

import "github.com/go-zookeeper/zk"

// Option adjusts a recipe.
type Option func(*options)

type options struct {
	acl  []zk.ACL
	data []byte
}

func buildOptions(opts []Option) options {
	o := options{acl: openACL}
	for _, fn := range opts {
		fn(&o)
	}
	return o
}

// WithACL sets the ACL of the nodes a recipe creates (default: world, all).
func WithACL(acl []zk.ACL) Option { return func(o *options) { o.acl = acl } }

// WithData sets the data stored in the recipe's own node, e.g. the holder's
// or the candidate's identity, which others can read.
func WithData(data []byte) Option { return func(o *options) { o.data = data } }
