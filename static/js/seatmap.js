// The seat map: see below.
