package tickets

import "github.com/shardid/shardid"

// Test-only access to internals, for the external tickets_test package.

// Statement renders one of the client's statements (draw, explain, kind,
// settings, sequence) for dialect d and settings s, for TiDB's parser.
func Statement(d string, s Settings, name string) (string, error) {
	s, err := s.normalize()
	if err != nil {
		return "", err
	}
	return newView(shardid.Dialect(d), s).render(name)
}

// Unchecked turns off what keeps c's servers apart, for negative
// controls: the check of a late server's settings and the class check of
// every ticket.
func Unchecked(c *Client) { c.unchecked = true }
