package dev.periscope.credentials;

/** The credential store cannot be used; the message says why and never holds a value. */
public final class CredentialStoreException extends RuntimeException {
  public CredentialStoreException(String message) {
    super(message);
  }
}
