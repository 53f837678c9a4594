#include "financepdf.h"

#include "domain/providerstatement.h"
#include "finance/financehtml.h"
#include "store/sqlitefilelocks.h"

#include <QAbstractTextDocumentLayout>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextTable>

#include <limits>

namespace verity {

namespace {

// Paper is printed black on white whatever the screen's theme; the rule under a page's header
// is a light grey.
const QColor pageRule(0x99, 0x99, 0x99);

// The top and bottom of a table row as laid out: its cells' first and last lines.
std::pair<qreal, qreal> rowExtent(QTextTable *table, int row)
{
    const QAbstractTextDocumentLayout *layout = table->document()->documentLayout();
    qreal top = std::numeric_limits<qreal>::max();
    qreal bottom = 0;
    for (int column = 0; column < table->columns(); ++column) {
        const QTextTableCell cell = table->cellAt(row, column);
        top = qMin(top, layout->blockBoundingRect(cell.firstCursorPosition().block()).top());
        bottom = qMax(bottom, layout->blockBoundingRect(cell.lastCursorPosition().block()).bottom());
    }
    return {top, bottom};
}

// The bottom of what a heading must share its page with: the column names and the first row of
// the table after it, or the paragraph after it.
qreal keptWithHeading(const QTextBlock &heading)
{
    const QAbstractTextDocumentLayout *layout = heading.document()->documentLayout();
    const QTextBlock next = heading.next();
    if (!next.isValid())
        return layout->blockBoundingRect(heading).bottom();
    QTextTable *table = QTextCursor(next).currentTable();
    if (!table)
        return layout->blockBoundingRect(next).bottom();
    // Every table here opens with its column names: keep them and the row after them.
    return rowExtent(table, qMin(table->rows() - 1, qMax(1, table->format().headerRowCount()))).second;
}

void breakBefore(const QTextBlock &block)
{
    QTextBlockFormat format = block.blockFormat();
    format.setPageBreakPolicy(format.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysBefore);
    QTextCursor(block).setBlockFormat(format);
}

// Pages break where a reader expects: a heading never ends a page (it goes with the start of
// what it heads), and a table row never runs over two pages, unless it is taller than one.
// Settled in document order, laid out again after each move: a move only moves what follows.
void keepTogether(QTextDocument &document)
{
    const qreal pageHeight = document.pageSize().height();
    const auto samePage = [pageHeight](qreal top, qreal bottom) {
        return int(top / pageHeight) == int((bottom - 1) / pageHeight);
    };
    for (auto it = document.rootFrame()->begin(); !it.atEnd(); ++it) {
        if (auto *table = qobject_cast<QTextTable *>(it.currentFrame())) {
            for (int row = 0; row < table->rows(); ++row) {
                document.pageCount(); // lays the document out as it now stands
                const auto [top, bottom] = rowExtent(table, row);
                if (row == 0 || samePage(top, bottom) || bottom - top > pageHeight / 2)
                    continue;
                // The page ends after the row above: its cells break the page after their text
                // (with no padding below, which would show under the next page's column names).
                // A break before this row's cells would be taken again once Qt has moved the
                // row, leaving a blank page.
                for (int column = 0; column < table->columns(); ++column) {
                    QTextTableCell above = table->cellAt(row - 1, column);
                    QTextTableCellFormat cellFormat = above.format().toTableCellFormat();
                    cellFormat.setBottomPadding(0);
                    above.setFormat(cellFormat);
                    const QTextBlock last = above.lastCursorPosition().block();
                    QTextBlockFormat format = last.blockFormat();
                    format.setPageBreakPolicy(format.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysAfter);
                    QTextCursor(last).setBlockFormat(format);
                }
            }
            continue;
        }
        const QTextBlock block = it.currentBlock();
        if (!block.isValid() || block.blockFormat().headingLevel() == 0)
            continue;
        document.pageCount();
        if (!samePage(document.documentLayout()->blockBoundingRect(block).top(), keptWithHeading(block)))
            breakBefore(block);
    }
}

// Lays the report out on the writer's pages under a header of its own: the title and period
// on every page, and which page of how many, so a page printed alone still says what it is.
Expected<void> paintPages(QPdfWriter &writer, const QString &html, const QString &title,
                          const QString &period)
{
    QPainter painter;
    if (!painter.begin(&writer))
        return makeError(QStringLiteral("cannot paint the PDF"));
    QTextDocument document;
    document.documentLayout()->setPaintDevice(&writer);
    QFont font = document.defaultFont();
    font.setPointSizeF(8);
    document.setDefaultFont(font);
    // Words, ids among them, break only where a space is; never in the middle.
    QTextOption option = document.defaultTextOption();
    option.setWrapMode(QTextOption::WordWrap);
    document.setDefaultTextOption(option);
    document.setDocumentMargin(0);
    document.setHtml(html);

    QFont headerFont = font;
    headerFont.setPointSizeF(9);
    headerFont.setBold(true);
    const QFontMetricsF metrics(headerFont, &writer);
    const QRectF page(QPointF(0, 0), writer.pageLayout().paintRectPixels(writer.resolution()).size());
    const qreal rule = metrics.lineSpacing() * 1.25;
    const qreal headerHeight = metrics.lineSpacing() * 2;
    const QSizeF body(page.width(), page.height() - headerHeight);
    document.setPageSize(body);
    keepTogether(document);

    const int pages = document.pageCount();
    for (int i = 0; i < pages; ++i) {
        if (i > 0 && !writer.newPage())
            return makeError(QStringLiteral("cannot start page %1 of the PDF").arg(i + 1));
        painter.setFont(headerFont);
        painter.setPen(Qt::black);
        const QRectF line(0, 0, page.width(), metrics.lineSpacing());
        painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, title + QStringLiteral(" · ") + period);
        painter.drawText(line, Qt::AlignRight | Qt::AlignVCenter,
                         QStringLiteral("page %1 of %2").arg(i + 1).arg(pages));
        painter.setPen(QPen(pageRule, 0));
        painter.drawLine(QPointF(0, rule), QPointF(page.width(), rule));

        painter.save();
        painter.translate(0, headerHeight - i * body.height());
        const QRectF view(0, i * body.height(), body.width(), body.height());
        painter.setClipRect(view);
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = view;
        context.palette.setColor(QPalette::Text, Qt::black);
        document.documentLayout()->draw(&painter, context);
        painter.restore();
    }
    painter.end();
    return {};
}

} // namespace

Expected<void> writeFinancePdf(const QString &path, const Reconciliation &reconciliation,
                               const QList<DuplicatePayout> &duplicates, const QList<PayoutMark> &marks)
{
    if (Expected<void> free = refuseToOverwriteDatabase(path); !free)
        return free;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    {
        const QString title = QStringLiteral("Verity reconciliation");
        const QString period = periodText(reconciliation.period);
        QPdfWriter writer(&file);
        writer.setResolution(300);
        writer.setTitle(QStringLiteral("%1, %2").arg(title, period));
        writer.setCreator(QStringLiteral("Verity"));
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                         QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
        if (Expected<void> painted =
                    paintPages(writer, financeHtml(reconciliation, duplicates, marks), title, period);
            !painted)
            return makeError(QStringLiteral("cannot write %1: %2").arg(path, painted.message()));
    }
    if (file.error() != QFileDevice::NoError || !file.commit())
        return makeError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

} // namespace verity
