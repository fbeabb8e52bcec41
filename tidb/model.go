package tidb

import "github.com/shardid/shardid/tidb/script"

// The input model comes from the script stage (tidb/script): these names
// let a caller that renders one table (Parse, then Render) import this
// package alone.
type (
	// Table is a parsed CREATE TABLE (script.Table).
	Table = script.Table
	// Column is a column of a Table (script.Column).
	Column = script.Column
	// Index is a key or constraint of a Table (script.Index).
	Index = script.Index
	// IndexPart is one part of an Index (script.IndexPart).
	IndexPart = script.IndexPart
	// PrimaryKey is a Table's primary key (script.PrimaryKey).
	PrimaryKey = script.PrimaryKey
	// Expr is an expression a Table holds (script.Expr).
	Expr = script.Expr
)

// Parse reads exactly one CREATE TABLE statement (script.Parse).
func Parse(sql string) (*Table, error) { return script.Parse(sql) }
