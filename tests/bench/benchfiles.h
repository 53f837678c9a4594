#pragma once
// Synthetic transcript files of a chosen size, one per format, for the import benchmark: the
// shapes the real exporters write, with ids that never repeat and one retried refund in ten.

#include <QString>

namespace verity::bench {

// Writes about `megabytes` of `format` ("native", "openai-chat", "otlp", "tau2") to `path`;
// returns the number of conversations (tickets) written.
qint64 writeFile(const QString &format, const QString &path, qint64 megabytes);

} // namespace verity::bench
