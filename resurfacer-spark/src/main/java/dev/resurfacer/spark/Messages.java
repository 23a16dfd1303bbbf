package dev.resurfacer.spark;

/** The message a user needs from a failure on the cluster: the innermost cause's, on one line. */
final class Messages {
  private Messages() {}

  static String root(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
