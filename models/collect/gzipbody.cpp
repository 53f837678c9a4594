#include "gzipbody.h"

#include <zlib.h>

#include <limits>

namespace verity {

Expected<Inflated> gunzip(const QByteArray &body, qsizetype ceiling)
{
    z_stream stream = {};
    // 16 + MAX_WBITS: a gzip header and trailer, not zlib's own.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
        return makeError(QStringLiteral("cannot start inflating the body"));
    Inflated out;
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(body.constData()));
    stream.avail_in = uInt(qMin<qsizetype>(body.size(), std::numeric_limits<uInt>::max()));
    char chunk[64 * 1024];
    int status = Z_OK;
    while (status != Z_STREAM_END) {
        stream.next_out = reinterpret_cast<Bytef *>(chunk);
        stream.avail_out = sizeof chunk;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END) {
            const QString reason = stream.msg ? QString::fromLatin1(stream.msg)
                                              : QStringLiteral("the gzip stream is cut short");
            inflateEnd(&stream);
            return makeError(QStringLiteral("Content-Encoding is gzip but the body is not: %1").arg(reason));
        }
        const qsizetype produced = qsizetype(sizeof chunk - stream.avail_out);
        if (out.bytes.size() + produced > ceiling) {
            out.tooLarge = true;
            break;
        }
        out.bytes.append(chunk, produced);
    }
    inflateEnd(&stream);
    return out;
}

} // namespace verity
