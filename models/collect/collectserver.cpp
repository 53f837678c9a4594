#include "collectserver.h"

#include <QFile>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QMetaEnum>
#include <QSslCertificate>
#include <QSslKey>
#include <QTcpSocket>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace verity {

namespace {

// Whether the private key is the certificate's: Qt takes any pair, and a wrong one fails each
// handshake later with nothing said here.
bool keyIsCertificates(const QByteArray &certificatePem, const QByteArray &keyPem)
{
    const auto bio = [](const QByteArray &bytes) {
        return std::unique_ptr<BIO, decltype(&BIO_free)>(
                BIO_new_mem_buf(bytes.constData(), int(bytes.size())), &BIO_free);
    };
    // No passphrase is asked for: an encrypted key was refused before this.
    pem_password_cb *noPassphrase = [](char *, int, int, void *) { return 0; };
    const auto certificateBio = bio(certificatePem);
    const auto keyBio = bio(keyPem);
    if (!certificateBio || !keyBio)
        return false;
    const std::unique_ptr<X509, decltype(&X509_free)> certificate(
            PEM_read_bio_X509(certificateBio.get(), nullptr, noPassphrase, nullptr), &X509_free);
    const std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
            PEM_read_bio_PrivateKey(keyBio.get(), nullptr, noPassphrase, nullptr), &EVP_PKEY_free);
    const bool matches = certificate && key && X509_check_private_key(certificate.get(), key.get()) == 1;
    ERR_clear_error(); // what failed here is not for the TLS backend to read later
    return matches;
}

// "POST", from Qt's "Post".
QString methodName(QHttpServerRequest::Method method)
{
    const char *key = QMetaEnum::fromType<QHttpServerRequest::Method>().valueToKey(int(method));
    return key ? QString::fromLatin1(key).toUpper() : QStringLiteral("OTHER");
}

Expected<QByteArray> readPem(const QString &path, const char *what)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("%1 %2: cannot read it: %3")
                                 .arg(QLatin1String(what), path, file.errorString()));
    return file.readAll();
}

} // namespace

CollectServer::CollectServer(ImportWrites &store, RegistrySelection registries, CollectOptions options,
                             QObject *parent)
    : QAbstractHttpServer(parent)
    , m_api(store, std::move(registries), std::move(options))
    , m_overdue(new QTimer(this))
{
    // A call's grace ends at its own moment; looked at every few seconds, it is escalated a few
    // seconds after at most.
    m_overdue->setInterval(5000);
    connect(m_overdue, &QTimer::timeout, this, &CollectServer::escalateOverdue);
}

void CollectServer::escalateOverdue()
{
    if (m_storeAway)
        return;
    const Expected<int> escalated = m_api.escalateOverdue();
    if (!escalated)
        emit noted(QStringLiteral("cannot escalate the calls whose result did not come (tried again in a few "
                                  "seconds): %1")
                           .arg(escalated.message()));
    else if (*escalated > 0)
        emit noted(
                QStringLiteral("%1 %2 no result within the grace period: escalated")
                        .arg(*escalated)
                        .arg(*escalated == 1 ? QStringLiteral("write had") : QStringLiteral("writes had")));
}

Expected<quint16> CollectServer::listenOn(const QHostAddress &address, quint16 port, const CollectTls &tls)
{
    if (!tls.certificateFile.isEmpty() || !tls.keyFile.isEmpty()) {
        if (tls.certificateFile.isEmpty() || tls.keyFile.isEmpty())
            return makeError(QStringLiteral("TLS needs both --tls-cert and --tls-key"));
        Expected<QByteArray> certificatePem = readPem(tls.certificateFile, "--tls-cert");
        if (!certificatePem)
            return certificatePem.error();
        Expected<QByteArray> keyPem = readPem(tls.keyFile, "--tls-key");
        if (!keyPem)
            return keyPem.error();
        const QList<QSslCertificate> chain = QSslCertificate::fromData(*certificatePem, QSsl::Pem);
        if (chain.isEmpty())
            return makeError(QStringLiteral("--tls-cert %1: expected a PEM certificate (BEGIN CERTIFICATE)")
                                     .arg(tls.certificateFile));
        QSslKey key(*keyPem, QSsl::Rsa, QSsl::Pem);
        if (key.isNull())
            key = QSslKey(*keyPem, QSsl::Ec, QSsl::Pem);
        if (key.isNull())
            return makeError(
                    QStringLiteral("--tls-key %1: expected an unencrypted PEM private key (RSA or EC)")
                            .arg(tls.keyFile));
        if (!keyIsCertificates(*certificatePem, *keyPem))
            return makeError(
                    QStringLiteral("--tls-key %1 does not belong to the certificate in --tls-cert %2: "
                                   "every TLS handshake would fail")
                            .arg(tls.keyFile, tls.certificateFile));
        sslSetup(chain.first(), key);
    }
    const quint16 bound = listen(address, port);
    if (bound == 0) {
        const QString where = address.protocol() == QAbstractSocket::IPv6Protocol
                ? QStringLiteral("[%1]:%2").arg(address.toString()).arg(port)
                : QStringLiteral("%1:%2").arg(address.toString()).arg(port);
        return makeError(
                QStringLiteral("cannot listen on %1 (in use, or not an address of this machine)").arg(where));
    }
    escalateOverdue(); // what waited while no receiver ran
    m_overdue->start();
    return bound;
}

bool CollectServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // Qt writes an answer's headers and body separately; without this the body waits for the
    // client's delayed ACK.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    CollectRequest plain;
    plain.method = methodName(request.method());
    plain.path = request.url().path();
    plain.contentType = request.value(QByteArrayLiteral("content-type"));
    plain.contentEncoding = request.value(QByteArrayLiteral("content-encoding"));
    plain.authorization = request.value(QByteArrayLiteral("authorization"));
    plain.body = request.body();
    plain.peer = QStringLiteral("%1:%2").arg(socket->peerAddress().toString()).arg(socket->peerPort());
    const CollectAnswer answer = m_api.handle(plain);
    QHttpServerResponder responder = makeResponder(request, socket);
    write(responder, answer);
    ++m_answered;
    emit served(answer.log, answer.status);
    return true;
}

void CollectServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    // handleRequest answers every request; this only runs should Qt call it regardless.
    QHttpServerResponder responder = makeResponder(request, socket);
    CollectAnswer answer;
    answer.status = 404;
    write(responder, answer);
}

void CollectServer::write(QHttpServerResponder &responder, const CollectAnswer &answer)
{
    responder.writeStatusLine(QHttpServerResponder::StatusCode(answer.status));
    if (!answer.contentType.isEmpty())
        responder.writeHeader(QByteArrayLiteral("Content-Type"), answer.contentType);
    responder.writeHeader(QByteArrayLiteral("Content-Length"), QByteArray::number(answer.body.size()));
    if (answer.retryAfterSeconds)
        responder.writeHeader(QByteArrayLiteral("Retry-After"),
                              QByteArray::number(*answer.retryAfterSeconds));
    if (!answer.allow.isEmpty())
        responder.writeHeader(QByteArrayLiteral("Allow"), answer.allow);
    if (!answer.wwwAuthenticate.isEmpty())
        responder.writeHeader(QByteArrayLiteral("WWW-Authenticate"), answer.wwwAuthenticate);
    responder.writeBody(answer.body);
}

} // namespace verity
