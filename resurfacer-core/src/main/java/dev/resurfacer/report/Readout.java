package dev.resurfacer.report;

/**
 * A format's typed result for one verb on one table ({@code describe}, {@code plan}, {@code compact}, and the
 * verbs only one format has on the local engine, as {@code expire} or {@code vacuum}): the command only prints
 * it, {@link #json()} for {@code --output json} and {@link #render()} for the text form, both written next to
 * the format that knows the fields.
 */
public interface Readout {
  /** The text form. */
  String render();

  /** The text form under {@code --verbose}: a format that shows more detail then says so here. */
  default String render(boolean verbose) {
    return render();
  }

  /** What {@code --output json} writes: the record itself unless the format writes a different shape. */
  default Object json() {
    return this;
  }

  /** False when the run failed in part (the command exits non-zero). */
  default boolean succeeded() {
    return true;
  }
}
