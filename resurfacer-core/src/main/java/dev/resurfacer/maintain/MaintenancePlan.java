package dev.resurfacer.maintain;

import java.util.List;

/**
 * Everything one run does. A table named by several entries gets the operations of all of them;
 * where two declare the same operation, the later entry's settings win.
 *
 * <pre>
 * MaintenancePlan plan = MaintenancePlan.of(
 *     Maintain.namespace("raw").expireSnapshots(Duration.ofDays(5), 1).compact(),
 *     Maintain.table("analytics.events").removeOrphans(Duration.ofDays(3)));
 * </pre>
 */
public record MaintenancePlan(List<Maintain> entries) {
  public MaintenancePlan {
    entries = List.copyOf(entries);
  }

  public static MaintenancePlan of(Maintain... entries) {
    return new MaintenancePlan(List.of(entries));
  }
}
