package accounts

// SetCacheLimit makes c hold at most n sessions, for a test of its eviction.
func SetCacheLimit(c *SessionCache, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = n
}
