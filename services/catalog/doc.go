// Package catalog is what the cinema offers: halls and their layouts (ParseLayout,
// FormatLayout), movies, shows, zone prices, sale windows and purchase limits. Catalog
// reads (with a short cache for the order path); CatalogWriter is the write side the
// console, the admin API and the publish job share, each write audited (invariant 11)
// and times stored in UTC (invariant 7).
//
// It keeps the rules of the halls, zones, seats, movies, shows and show_prices tables,
// whose SQL is in package store. It imports services, store and audit. What it needs of
// the seat maps in Redis it asks through the small SeatMaps interface, which the seats
// package's Shows provides, so it never imports seats.
package catalog
