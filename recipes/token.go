package recipes

import (
	"fmt"
	"strconv"
)

// Token is a fencing token: the creation zxid (czxid) of the node behind a
// grant (a lock, one side of a read/write lock, a semaphore lease, a
// leadership). ZooKeeper gives every transaction a zxid larger than every
// earlier one, across leader changes too, and a node's czxid never
// changes, so a grant's token is fixed for its life and a node created
// later always has a larger one. See docs/recipes.md for what each recipe
// promises about the order of its grants' tokens.
//
// A valid token is positive: the zero Token, which an ignored error
// leaves behind, is rejected by Fence. Tokens are comparable only
// among grants of the same recipe directory on the same ensemble.
type Token int64

// String formats t as a zxid is usually shown, in hex with a 0x prefix
// ("0x200000005"). ParseToken reads it back.
func (t Token) String() string { return "0x" + strconv.FormatInt(int64(t), 16) }

// ParseToken reads a token as String formats it (or in decimal), for
// instance from a request header. It returns ErrInvalidToken for anything
// that is not a positive 64-bit number.
func ParseToken(s string) (Token, error) {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %q", ErrInvalidToken, s)
	}
	return Token(n), nil
}
