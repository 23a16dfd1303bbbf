package dev.resurfacer.report;

/** A {@link Readout} whose JSON is the format's result record it carries, unchanged. */
public interface RecordReadout extends Readout {
  /** The result record: what {@code --output json} writes. */
  Object result();

  @Override
  default Object json() {
    return result();
  }
}
