package io.github.extractbetween.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Function1;
import scala.Tuple3;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Registers {@code extract_between_all} and {@code extract_between_first} in every session
 * built with {@code spark.sql.extensions=io.github.extractbetween.spark.ExtractBetweenExtensions}
 * (and this jar on the driver's and executors' class path, as {@code --jars} puts it).
 *
 * <pre>
 * SELECT extract_between_all(html, '&lt;b&gt;', '&lt;/b&gt;')            -- array&lt;string&gt;
 * SELECT extract_between_all(html, '[', ']', 10, 'partial')
 * SELECT extract_between_first(html, '&lt;title&gt;', '&lt;/title&gt;')  -- string
 * </pre>
 */
public final class ExtractBetweenExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        extensions.injectFunction(function(
                Functions.ALL,
                // The library's description of the function (a test of spark/src holds them equal).
                "_FUNC_(text, start, end[, max_matches[, on_unclosed]]) - Every text between a literal"
                        + " start and end marker, left to right (tool card text-extract-between 1.0.0):"
                        + " at most max_matches (NULL: no cap); on_unclosed 'raise', 'null' or 'partial'"
                        + " (NULL: 'raise').",
                new AbstractFunction1<Seq<Expression>, Expression>() {
                    @Override
                    public Expression apply(Seq<Expression> args) {
                        return Functions.all(args);
                    }
                }));
        extensions.injectFunction(function(
                Functions.FIRST,
                "_FUNC_(text, start, end[, on_unclosed]) - The first text between a literal start and"
                        + " end marker, or NULL where there is none; on_unclosed as for extract_between_all.",
                new AbstractFunction1<Seq<Expression>, Expression>() {
                    @Override
                    public Expression apply(Seq<Expression> args) {
                        return Functions.first(args);
                    }
                }));
        return BoxedUnit.UNIT;
    }

    private static Tuple3<FunctionIdentifier, ExpressionInfo, Function1<Seq<Expression>, Expression>> function(
            String name, String usage, Function1<Seq<Expression>, Expression> builder) {
        ExpressionInfo info = new ExpressionInfo(
                ExtractBetweenExtensions.class.getName(), null, name, usage, "", "", "", "string_funcs", "", "",
                "java_udf");
        return new Tuple3<>(FunctionIdentifier.apply(name), info, builder);
    }
}
