package dev.resurfacer.report;

import java.util.Map;

/**
 * One operation on one table.
 *
 * @param message what it did, would do, or why it did not
 * @param metrics counters such as {@code rewritten_files}, {@code deleted_bytes}
 */
public record OperationResult(
    String operation, Outcome outcome, String message, long durationMs, Map<String, Long> metrics) {
  public OperationResult {
    metrics = Map.copyOf(new java.util.TreeMap<>(metrics));
  }
}
