package services

// SetRateLimiter replaces the rate limiter of the orders service (tests change limits
// half way).
func (o *Orders) SetRateLimiter(r *RateLimiter) { o.limiter = r }
