package dev.resurfacer.report;

/**
 * A format's typed read-out of one table (what {@code describe} shows): the record itself is the JSON
 * form, {@link #render()} the one-screen text form, written next to the format that knows its fields.
 */
public interface Readout {
  String render();
}
