package dev.periscope.verify;

/** A plugin.yaml that cannot be used: names the file, the field and what was expected there. */
public class ManifestException extends Exception {
  private final String file;
  private final String field;

  public ManifestException(String file, String field, String expected) {
    super(file + ": field '" + field + "': " + expected);
    this.file = file;
    this.field = field;
  }

  public String file() {
    return file;
  }

  public String field() {
    return field;
  }
}
