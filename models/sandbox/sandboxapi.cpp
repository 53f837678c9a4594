#include "sandboxapi.h"

#include <QDateTime>

namespace verity {

namespace {

constexpr int maxKeyLength = 255; // Stripe's limit

QString redactedKey(const QString &key)
{
    return key.size() <= 8 ? QStringLiteral("…") : key.left(3) + QStringLiteral("…") + key.right(4);
}

} // namespace

SandboxApi::SandboxApi(SandboxState &state, SandboxOptions options)
    : m_state(state)
    , m_options(std::move(options))
{
    // Expired keys are also dropped one by one as they are met; this keeps the file small.
    // A failure here only leaves old rows behind, so it is not an error.
    static_cast<void>(m_state.purgeResponses(nowMs() - qint64(m_options.keyRetentionHours) * 3600 * 1000));
}

qint64 SandboxApi::nowMs() const
{
    return m_options.clock ? m_options.clock() : QDateTime::currentMSecsSinceEpoch();
}

SandboxApi::Result SandboxApi::ok(QByteArray body, bool accepted)
{
    return Result{200, std::move(body), true, accepted};
}

SandboxApi::Result SandboxApi::refused(const SandboxError &error)
{
    return Result{error.status, errorBody(error), false, false};
}

SandboxApi::Result SandboxApi::failedWhile(const SandboxError &error)
{
    return Result{error.status, errorBody(error), true, false};
}

SandboxAnswer SandboxApi::answer(const SandboxError &error)
{
    SandboxAnswer answer;
    answer.status = error.status;
    answer.body = errorBody(error);
    return answer;
}

SandboxAnswer SandboxApi::answer(const Result &result)
{
    SandboxAnswer answer;
    answer.status = result.status;
    answer.body = result.body;
    return answer;
}

SandboxError SandboxApi::internalError(const QString &what)
{
    return SandboxError{
            500, QStringLiteral("api_error"), QString(),
            QStringLiteral("The sandbox could not use its state file: %1. Nothing was committed.").arg(what),
            QString()};
}

SandboxAnswer SandboxApi::handle(const SandboxRequest &incoming)
{
    SandboxRequest request = incoming;
    const QString faultPrefix = QStringLiteral("/sandbox-fault/");
    bool faultFromPath = false;
    if (request.path.startsWith(faultPrefix)) {
        const qsizetype end = request.path.indexOf(u'/', faultPrefix.size());
        const QString named = request.path.mid(faultPrefix.size(), end < 0 ? -1 : end - faultPrefix.size());
        request.path = end < 0 ? QStringLiteral("/") : request.path.mid(end);
        if (request.fault.isEmpty()) {
            request.fault = named.toUtf8();
            faultFromPath = true;
        }
    }
    const QByteArray bearer = QByteArrayLiteral("Bearer ");
    if (request.authorization.isEmpty()) {
        return answer(SandboxError{401, QStringLiteral("invalid_request_error"),
                                   QStringLiteral("api_key_missing"),
                                   QStringLiteral("You did not provide an API key. Send it in the header "
                                                  "'Authorization: Bearer <key>'."),
                                   QString()});
    }
    if (!request.authorization.startsWith(bearer)
        || QString::fromUtf8(request.authorization.mid(bearer.size())) != m_options.apiKey) {
        const QString given = QString::fromUtf8(request.authorization.startsWith(bearer)
                                                        ? request.authorization.mid(bearer.size())
                                                        : request.authorization);
        return answer(SandboxError{
                401, QStringLiteral("invalid_request_error"), QStringLiteral("api_key_invalid"),
                QStringLiteral("Invalid API Key provided: %1").arg(redactedKey(given)), QString()});
    }

    const QStringList segments = request.path.split(u'/', Qt::SkipEmptyParts);
    // A pickup or a message: /v1/pickups, /v1/messages and their objects.
    const SandboxRecordKind *recordKind = segments.size() >= 2 && segments.at(0) == u"v1"
            ? sandboxRecordKindAt(QStringLiteral("/v1/") + segments.at(1))
            : nullptr;
    PostEndpoint endpoint;
    const QString account = QString::fromUtf8(request.stripeAccount).trimmed();
    QString written; // what a write POST makes: the POSTs that faults strike after the commit
    if (request.method == u"POST" && request.path == u"/v1/refunds") {
        endpoint = [this, account](const SandboxForm &form) { return createRefund(form, account); };
        written = QStringLiteral("refund");
    } else if (request.method == u"POST" && recordKind && request.path == recordKind->path) {
        endpoint = [this, recordKind](const SandboxForm &form) { return createRecord(*recordKind, form); };
        written = recordKind->object;
    } else if (request.method == u"POST" && request.path == u"/v1/accounts") {
        endpoint = [this](const SandboxForm &form) { return createAccount(form); };
    } else if (request.method == u"POST" && request.path == u"/v1/payment_intents") {
        endpoint = [this, account](const SandboxForm &form) { return createPaymentIntent(form, account); };
    }
    const bool writePost = !written.isEmpty();
    const bool knownGet = request.method == u"GET" && segments.size() >= 2 && segments.at(0) == u"v1"
            && ((segments.size() <= 3
                 && (segments.at(1) == u"refunds" || segments.at(1) == u"payment_intents" || recordKind))
                || (segments.size() == 2
                    && (segments.at(1) == u"balance" || segments.at(1) == u"balance_transactions")));
    if (!endpoint && !knownGet) {
        SandboxError error = SandboxError::invalid(
                QString(),
                QStringLiteral("Unrecognized request URL (%1: %2).").arg(request.method, request.path));
        error.status = 404;
        return answer(error);
    }

    // A fault named by the request wins over the server-wide one; the server-wide plan draws
    // once per write POST so a seed replays the same schedule.
    std::optional<SandboxFault> fault;
    if (!request.fault.isEmpty()) {
        const std::optional<QList<SandboxFault>> named =
                SandboxFault::parseList(QString::fromUtf8(request.fault).trimmed());
        if (!named) {
            return answer(SandboxError::invalid(
                    QStringLiteral("Sandbox-Fault"),
                    QStringLiteral("Sandbox-Fault '%1' is not one of %2 (or several of "
                                   "them separated by commas).")
                            .arg(QString::fromUtf8(request.fault), SandboxFault::forms())));
        }
        // Several: the first that applies to this request; none applying means no fault. A
        // fault in the path is read the same way even alone: one base URL serves all of a
        // client's requests, the lookups after a write POST included.
        if (named->size() > 1 || faultFromPath) {
            for (const SandboxFault &candidate : *named) {
                if (candidate.appliesTo(writePost)) {
                    fault = candidate;
                    break;
                }
            }
        } else {
            fault = named->first();
        }
        if (fault && fault->strikesAfterCommit() && !writePost) {
            return answer(
                    SandboxError::invalid(QStringLiteral("Sandbox-Fault"),
                                          QStringLiteral("Sandbox-Fault %1 applies to the POSTs that write "
                                                         "(/v1/refunds, /v1/pickups, /v1/messages) only; "
                                                         "other requests take fail-before-accept=<status>.")
                                                  .arg(fault->text())));
        }
    }
    if (writePost) {
        const std::optional<SandboxFault> drawn = m_options.faults.draw();
        if (!fault)
            fault = drawn;
    }
    if (fault && fault->kind == SandboxFault::Kind::FailBeforeAccept) {
        SandboxAnswer failed =
                answer(SandboxError{fault->status, QStringLiteral("api_error"), QString(),
                                    QStringLiteral("Sandbox fault %1: the request failed before it was "
                                                   "accepted. Nothing was committed.")
                                            .arg(fault->text()),
                                    QString()});
        failed.note = fault->text();
        return failed;
    }
    return endpoint ? post(request, endpoint, fault, written) : get(request);
}

SandboxAnswer SandboxApi::post(const SandboxRequest &request, const PostEndpoint &endpoint,
                               std::optional<SandboxFault> fault, const QString &written)
{
    if (!request.query.isEmpty()) {
        return answer(SandboxError::invalid(QString(),
                                            QStringLiteral("Send the parameters of a POST form-encoded in "
                                                           "the body, not in the URL.")));
    }
    if (!request.contentType.isEmpty()
        && !request.contentType.startsWith("application/x-www-form-urlencoded")) {
        return answer(
                SandboxError::invalid(QString(),
                                      QStringLiteral("Send the parameters form-encoded "
                                                     "(Content-Type: application/x-www-form-urlencoded), "
                                                     "not as %1.")
                                              .arg(QString::fromUtf8(request.contentType))));
    }
    std::variant<SandboxForm, SandboxFormError> parsed = SandboxForm::parse(request.body);
    if (const auto *error = std::get_if<SandboxFormError>(&parsed))
        return answer(SandboxError::invalid(error->param, error->message));
    const SandboxForm &form = std::get<SandboxForm>(parsed);

    const QString key = QString::fromUtf8(request.idempotencyKey).trimmed();
    if (request.hasIdempotencyKey && (key.isEmpty() || key.size() > maxKeyLength)) {
        return answer(SandboxError::invalid(
                QStringLiteral("Idempotency-Key"),
                QStringLiteral("An Idempotency-Key must have 1 to %1 characters.").arg(maxKeyLength)));
    }
    const QString fingerprint = form.fingerprint(request.method, request.path);
    // Keys are an account's own, as at Stripe: the same key sent for two sellers is two keys.
    const QString account = QString::fromUtf8(request.stripeAccount).trimmed();
    const QString scopedKey = account.isEmpty() || key.isEmpty() ? key : account + u' ' + key;
    const qint64 retentionMs = qint64(m_options.keyRetentionHours) * 3600 * 1000;
    if (!key.isEmpty()) {
        if (m_inProgress.contains(scopedKey)) {
            SandboxAnswer conflict = answer(SandboxError{
                    409, QStringLiteral("invalid_request_error"), QStringLiteral("idempotency_key_in_use"),
                    QStringLiteral(
                            "There is currently another in-progress request using the Idempotency-Key '%1'. "
                            "Try again later: its answer will then be replayed.")
                            .arg(key),
                    QStringLiteral("Idempotency-Key")});
            conflict.idempotencyKey = key;
            return conflict;
        }
        Expected<std::optional<StoredResponse>> stored =
                m_state.storedResponse(scopedKey, nowMs() - retentionMs);
        if (!stored)
            return answer(internalError(stored.message()));
        if (*stored) {
            if ((*stored)->requestHash != fingerprint) {
                SandboxAnswer mismatch = answer(SandboxError{
                        400, QStringLiteral("idempotency_error"), QString(),
                        QStringLiteral(
                                "Keys for idempotent requests can only be used with the same parameters they "
                                "were first used with. The Idempotency-Key '%1' was first used with other "
                                "parameters (or another path); use another key for a different request.")
                                .arg(key),
                        QStringLiteral("Idempotency-Key")});
                mismatch.idempotencyKey = key;
                return mismatch;
            }
            SandboxAnswer replay;
            replay.status = (*stored)->status;
            replay.body = (*stored)->body;
            replay.replayed = true;
            replay.idempotencyKey = key;
            replay.note = QStringLiteral("replayed");
            return replay;
        }
    }

    if (Expected<void> begun = m_state.begin(); !begun)
        return answer(internalError(begun.message()));
    const Result result = endpoint(form);
    if (!result.executed || result.status >= 500) {
        m_state.rollback();
        return answer(result);
    }
    if (!key.isEmpty()) {
        if (Expected<void> stored = m_state.storeResponse(
                    scopedKey, StoredResponse{fingerprint, result.status, result.body, nowMs()});
            !stored) {
            m_state.rollback();
            return answer(internalError(stored.message()));
        }
    }
    if (Expected<void> committed = m_state.commit(); !committed) {
        m_state.rollback();
        return answer(internalError(committed.message()));
    }

    SandboxAnswer done = answer(result);
    done.idempotencyKey = key;
    if (fault && result.accepted) {
        done.note = fault->text();
        if (fault->kind == SandboxFault::Kind::AcceptThenStall) {
            done.stallMilliseconds = fault->stallMs();
            if (!key.isEmpty()) {
                m_inProgress.insert(scopedKey);
                done.keyInProgress = scopedKey;
            }
        } else if (fault->kind == SandboxFault::Kind::AcceptThenError) {
            const SandboxAnswer error = answer(SandboxError{
                    500, QStringLiteral("api_error"), QString(),
                    QStringLiteral(
                            "Sandbox fault accept-then-500: the %1 was committed, then the answer failed. "
                            "A retry with the same Idempotency-Key replays the success.")
                            .arg(written),
                    QString()});
            done.status = error.status;
            done.body = error.body;
        }
    }
    return done;
}

SandboxAnswer SandboxApi::get(const SandboxRequest &request)
{
    std::variant<SandboxForm, SandboxFormError> parsed = SandboxForm::parse(request.query);
    if (const auto *error = std::get_if<SandboxFormError>(&parsed))
        return answer(SandboxError::invalid(error->param, error->message));
    const SandboxForm &query = std::get<SandboxForm>(parsed);
    const QStringList segments = request.path.split(u'/', Qt::SkipEmptyParts);
    const QString account = QString::fromUtf8(request.stripeAccount).trimmed();
    if (const SandboxRecordKind *kind = sandboxRecordKindAt(QStringLiteral("/v1/") + segments.at(1)))
        return answer(segments.size() == 3 ? retrieveRecord(*kind, segments.at(2))
                                           : listRecords(*kind, query));
    if (segments.at(1) == u"refunds")
        return answer(segments.size() == 3 ? retrieveRefund(segments.at(2)) : listRefunds(query, account));
    if (segments.at(1) == u"payment_intents") {
        if (segments.size() == 3 && segments.at(2) == u"search")
            return answer(searchPaymentIntents(query, account));
        if (segments.size() == 3)
            return answer(retrievePaymentIntent(segments.at(2), account));
        SandboxError error = SandboxError::invalid(
                QString(),
                QStringLiteral("The sandbox does not list payment intents; search them "
                               "(/v1/payment_intents/search) or retrieve one by its id."));
        error.status = 404;
        return answer(error);
    }
    if (segments.at(1) == u"balance")
        return answer(retrieveBalance(account, query));
    return answer(listBalanceTransactions(account, query));
}

std::optional<SandboxError> checkMetadata(const QMap<QString, QString> &metadata)
{
    if (metadata.size() > 50)
        return SandboxError::invalid(QStringLiteral("metadata"),
                                     QStringLiteral("Metadata can have at most 50 keys."));
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it) {
        const QString param = QStringLiteral("metadata[%1]").arg(it.key());
        if (it.key().isEmpty() || it.key().size() > 40)
            return SandboxError::invalid(param,
                                         QStringLiteral("Metadata keys must have 1 to 40 characters."));
        if (it.value().size() > 500)
            return SandboxError::invalid(param,
                                         QStringLiteral("Metadata values can have at most 500 characters."));
    }
    return std::nullopt;
}

std::variant<qint64, SandboxError> parseAmount(const QString &param, const QString &text, bool allowNegative)
{
    constexpr qint64 maxAmount = 99999999; // Stripe's largest amount in the smallest unit
    bool valid = !text.isEmpty();
    for (qsizetype i = 0; i < text.size() && valid; ++i)
        valid = text.at(i).isDigit() || (i == 0 && allowNegative && text.at(i) == u'-' && text.size() > 1);
    const qint64 amount = valid && text.size() <= 10 ? text.toLongLong(&valid) : 0;
    if (!valid || text.size() > 10) {
        return SandboxError::invalid(
                param,
                QStringLiteral("Invalid integer: '%1'. %2 is a whole number of cents.").arg(text, param),
                QStringLiteral("parameter_invalid_integer"));
    }
    if (!allowNegative && amount <= 0) {
        return SandboxError::invalid(
                param, QStringLiteral("%1 must be a positive number of cents; got %2.").arg(param, text),
                QStringLiteral("amount_too_small"));
    }
    if (amount > maxAmount || amount < -maxAmount) {
        return SandboxError::invalid(param,
                                     QStringLiteral("%1 must be at most %2 cents.").arg(param).arg(maxAmount),
                                     QStringLiteral("amount_too_large"));
    }
    return amount;
}

std::variant<int, SandboxError> parseLimit(const SandboxForm &query)
{
    if (!query.has(QStringLiteral("limit")))
        return 10;
    bool valid = false;
    const QString text = query.value(QStringLiteral("limit"));
    const int limit = text.toInt(&valid);
    if (!valid || limit < 1 || limit > 100) {
        return SandboxError::invalid(
                QStringLiteral("limit"),
                QStringLiteral("limit must be a whole number from 1 to 100; got '%1'.").arg(text));
    }
    return limit;
}

} // namespace verity
