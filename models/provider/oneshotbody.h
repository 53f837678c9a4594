#pragma once
// What keeps a POST from reaching its system twice from here: a write is sent exactly once,
// and only a lookup may tell what became of it. Shared by the refund POST and the POST of a
// pickup or a message.

#include <QByteArray>
#include <QIODevice>

class QNetworkRequest;

namespace verity {

// A request body that can be read once and never rewound. Qt re-sends a request on its own
// when a connection drops after the request was written (QHttpNetworkConnectionChannel
// resends on RemoteHostClosedError while waiting for the answer, whatever the method), and
// it does so by rewinding the body. Refusing the rewind turns that re-send into
// ContentReSendError, so a write reaches its system at most once from here.
// (A QIODevice, not a QBuffer: Qt reads a QBuffer's bytes directly and could rewind those.)
class OneShotBody final : public QIODevice
{
public:
    OneShotBody(QByteArray data, QObject *parent);

    bool isSequential() const override { return false; }
    qint64 size() const override { return m_data.size(); }
    bool seek(qint64 position) override;

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    qint64 m_offset = 0;
    qint64 m_handedOut = 0;
};

// The rest of it, for a request about to be posted with a OneShotBody of `bodySize` bytes on
// a connection manager of its own: a connection of its own, closed after the answer (never a
// stale kept-alive one that drops as the POST is written, the classic trigger of a silent
// re-send), HTTP/1.1 only, no redirect followed, never an answer from a cache.
void makeOneShot(QNetworkRequest &request, qsizetype bodySize);

} // namespace verity
