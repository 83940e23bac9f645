package dev.periscope.verify;

import java.util.List;

/**
 * The outcome of verifying one package: every failure found, or a summary that ends with the
 * sha256.
 */
public record VerificationReport(
    String packageName, List<String> failures, List<String> summary, String sha256) {
  public VerificationReport {
    failures = List.copyOf(failures);
    summary = List.copyOf(summary);
  }

  public boolean passed() {
    return failures.isEmpty();
  }

  /** What a user reads: the failures, or the summary lines followed by {@code sha256: <hex>}. */
  public String render() {
    StringBuilder b = new StringBuilder();
    if (passed()) {
      summary.forEach(line -> b.append(line).append('\n'));
      b.append("sha256: ").append(sha256).append('\n');
    } else {
      b.append(packageName)
          .append(": ")
          .append(failures.size())
          .append(" verification failure")
          .append(failures.size() == 1 ? "" : "s")
          .append('\n');
      failures.forEach(f -> b.append(" - ").append(f).append('\n'));
    }
    return b.toString();
  }
}
