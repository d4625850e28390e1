// Package demo seeds a demo cinema (SeedDemo): three halls from their layout text, seven
// movies, a week of shows with prices, staff and admin accounts whose passwords it
// returns for printing, and one show nearly sold out. It also builds a stadium: its
// layout text (StadiumLayout, up to the largest grid a hall may have), a realistic
// pattern of taken seats (StadiumTaken) and the orders that take them (FillShowGroups),
// for the stadium benchmark and the big-hall tests.
//
// It imports services, audit, accounts, catalog, orders (orders are written through
// orders.InsertOrder) and store (the catalog's storage functions, and store/seed.go for
// the filler users); only the command line and tests import it.
package demo
