package dev.resurfacer.report;

/**
 * A format's typed result for one verb on one table ({@code describe}, {@code plan}, {@code compact}): the
 * command only prints it, {@link #json()} for {@code --output json} and {@link #render()} for the text form,
 * both written next to the format that knows the fields.
 */
public interface Readout {
  /** The text form. */
  String render();

  /** What {@code --output json} writes: the record itself unless the format writes a different shape. */
  default Object json() {
    return this;
  }

  /** False when the run failed in part (the command exits non-zero). */
  default boolean succeeded() {
    return true;
  }
}
