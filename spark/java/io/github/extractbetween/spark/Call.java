package io.github.extractbetween.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.DataType;
import scala.Option;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A call of {@link Rows}, shown as the function the user wrote wherever Spark names it: a
 * column's name, a nested use ({@code upper(extract_between_first(s, [, ]))}), a plan, an
 * error. Spark's {@code StaticInvoke} shows the Java method it calls instead; this keeps its
 * evaluation and generated code and changes only the name. The text and markers are shown
 * from the call's own arguments (so the text's column is named as Spark names it), the
 * options as the user gave them.
 */
final class Call extends StaticInvoke {
    private final String function;
    private final List<String> options;
    private final Seq<AbstractDataType> types;

    Call(String function, DataType type, String method, Seq<Expression> arguments, Seq<AbstractDataType> types,
            List<String> options) {
        super(Rows.class, type, method, arguments, types, true, true, true, Option.empty());
        this.function = function;
        this.options = options;
        this.types = types;
    }

    @Override
    public String toString() {
        List<String> shown = new ArrayList<>();
        List<Expression> arguments = CollectionConverters.asJava(arguments());
        for (int i = 0; i < 3 && i < arguments.size(); i++) {
            shown.add(arguments.get(i).toString());
        }
        shown.addAll(options);
        return function + "(" + String.join(", ", shown) + ")";
    }

    @Override
    public Expression withNewChildrenInternal(IndexedSeq<Expression> children) {
        return new Call(function, dataType(), functionName(), children.toList(), types, options);
    }
}
