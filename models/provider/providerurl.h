#pragma once
// Where Verity sends the provider's API key: the rule for a provider base URL, and the origin
// (scheme, host, port) the key is tied to. Every place a base URL enters (settings, the
// command line, the client itself) checks it here, so there is one rule and one message.

#include "domain/expected.h"

#include <QString>
#include <QUrl>

namespace verity {

// The rule: https to any host, or plain http only to this machine (127.0.0.0/8, ::1,
// localhost), where the key never crosses a network unencrypted; a host; no user name or
// password (the key is given separately); no query or fragment (a base URL takes neither).
// The URL, or why not, naming it: "\"file:///tmp/x\" uses file:, ...; expected https://…, ...".
Expected<QUrl> checkProviderUrl(const QUrl &url);
// The same for text a person typed or passed on the command line, parsed strictly: no scheme
// is guessed, so a bare path never becomes a file: URL.
Expected<QUrl> parseProviderUrl(const QString &text);

// "localhost", or an address in 127.0.0.0/8 or ::1.
bool isLoopbackHost(const QString &host);

// "http://127.0.0.1:12111": what the key is tied to, for messages.
QString originOf(const QUrl &url);
// Same scheme, host and port (a default port counts as given).
bool sameOrigin(const QUrl &a, const QUrl &b);

} // namespace verity
