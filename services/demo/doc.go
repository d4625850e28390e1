// Package demo seeds a demo cinema (SeedDemo): three halls from their layout text, seven
// movies, a week of shows with prices, staff and admin accounts whose passwords it
// returns for printing, and one show nearly sold out.
//
// It imports services, audit, accounts, catalog and orders (orders are written
// through orders.InsertOrder); nothing imports it but the command line.
package demo
