package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"

	"seatflow/services"
)

// transientMySQL lists the MySQL/MariaDB server errors that say the server or the
// connection is in trouble, not the statement: too many connections (1040, 1203), server
// shutdown (1053), aborted or killed connections (1152, 1927), network read and write
// errors (1158..1161), lock wait timeout (1205), deadlock (1213), interrupted or timed out
// statements (1317, 1969, 3024), a read-only server during failover (1290, 1836) and the
// client-side connection errors (2002, 2003, 2006, 2013).
var transientMySQL = map[uint16]bool{
	1040: true, 1053: true, 1152: true, 1158: true, 1159: true, 1160: true, 1161: true,
	1203: true, 1205: true, 1213: true, 1290: true, 1317: true, 1836: true, 1927: true,
	1969: true, 2002: true, 2003: true, 2006: true, 2013: true, 3024: true,
}

// statementFaults are the texts database/sql, sqlx and the MySQL driver give a statement
// that cannot run (an argument the driver cannot encode, such as a time in year 0) or a
// row that does not fit its destination; they carry no error type of their own.
var statementFaults = []string{
	"year is not in the range",
	"sql: Scan error",
	"sql: converting argument",
	"sql: expected",
	"unsupported Scan",
	"missing destination name",
}

// isStatementFault reports whether err is a fault of the SQL statement or its result
// rather than of the connection: a MySQL server error not in transientMySQL, or a scan
// or argument conversion error. A lost, refused or timed out connection
// (driver.ErrBadConn, mysql.ErrInvalidConn, sql.ErrConnDone, a net.Error, a deadline)
// and anything unrecognised are not: those stay 503 UNAVAILABLE.
func isStatementFault(err error) bool {
	if err == nil || isConnFault(err) {
		return false
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return !transientMySQL[me.Number]
	}
	msg := err.Error()
	for _, f := range statementFaults {
		if strings.Contains(msg, f) {
			return true
		}
	}
	return false
}

// isConnFault reports whether err says the database could not be reached or did not
// answer in time.
func isConnFault(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, context.Canceled) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}

// DuplicateOn reports whether err is MySQL's duplicate-key error 1062 on the unique key
// named key (MariaDB says "for key 'key'", MySQL 8 "for key 'table.key'").
func DuplicateOn(err error, key string) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062 &&
		(strings.HasSuffix(me.Message, "'"+key+"'") || strings.HasSuffix(me.Message, "."+key+"'"))
}

// IsNoTable reports whether err is MySQL's error 1146, a table that does not exist: the
// database's migrations have not been applied yet (seatflow migrate).
func IsNoTable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1146
}

// IsNoRows reports whether err is sql.ErrNoRows (a single-row read found nothing).
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// NullID maps id 0 (the system, no user) to SQL NULL for nullable id columns.
func NullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

// Unavailable wraps a storage failure. A store that could not be reached or answered too
// late (a lost or refused connection, an i/o timeout, a deadline, a deadlock victim) is
// 503 UNAVAILABLE: trying again may work. A fault in the statement itself (a MySQL server
// error such as 1292 incorrect datetime value, a column that does not scan into its
// field; see isStatementFault) is 500 INTERNAL: trying again fails the same way, and the
// handler logs it.
func Unavailable(what string, err error) *services.Error {
	if isStatementFault(err) {
		return &services.Error{Code: services.CodeInternal, Message: "something went wrong on our side; nothing was written", Err: err}
	}
	return &services.Error{Code: services.CodeUnavailable, Message: what + " is unavailable, nothing was written; try again", Err: err}
}
