/**
 * The Trino execution engine: maintenance operations run as Trino's own table procedures over
 * trino-jdbc, previewed and fenced by our planners, and checked after Trino commits.
 */
package dev.resurfacer.trino;
