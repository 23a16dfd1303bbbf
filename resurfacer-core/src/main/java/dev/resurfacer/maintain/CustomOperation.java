package dev.resurfacer.maintain;

/**
 * The extension point for operations Resurfacer does not ship. Write a record that implements this,
 * and an {@link OperationExecutor} for it, and register the executor with the runner:
 *
 * <pre>
 * record TagNightly(String prefix) implements CustomOperation {
 *   public String name() { return "tag-nightly"; }
 * }
 * var plan = MaintenancePlan.of(Maintain.table("db.t").compact().then(new TagNightly("nightly-")));
 * Resurfacer.connect(config).register(new TagNightlyExecutor()).run(plan, Mode.COMMIT);
 * </pre>
 *
 * By default a custom operation runs after every built-in one; override {@link #order()} to place it
 * elsewhere (see the constants on {@link Operation}).
 */
public non-sealed interface CustomOperation extends Operation {
  @Override
  default int order() {
    return 1000;
  }
}
