package io.github.extractbetween.spark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.AbstractDataType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The two SQL functions as Catalyst expressions, built when a query is analysed: the markers
 * and options are checked there (an {@code AnalysisException} names the argument and why),
 * and the expression is a {@link Call} of {@link Rows} (a {@code StaticInvoke}), which Spark compiles into its
 * generated code.
 */
final class Functions {
    static final String ALL = "extract_between_all";
    static final String FIRST = "extract_between_first";

    private Functions() {}

    /** {@code extract_between_all(text, start, end[, max_matches[, on_unclosed]])}. */
    static Expression all(Seq<Expression> arguments) {
        List<Expression> args = CollectionConverters.asJava(arguments);
        arity(ALL, args, 3, 5);
        long cap = args.size() > 3 ? cap(args.get(3)) : Long.MAX_VALUE;
        int onUnclosed = args.size() > 4 ? onUnclosed(ALL, args.get(4)) : Rows.RAISE;
        return invoke(
                ALL,
                args,
                "all",
                DataTypes.createArrayType(DataTypes.StringType, false),
                args.get(0),
                markers(ALL, args),
                Literal.create(cap, DataTypes.LongType),
                Literal.create(onUnclosed, DataTypes.IntegerType));
    }

    /** {@code extract_between_first(text, start, end[, on_unclosed])}. */
    static Expression first(Seq<Expression> arguments) {
        List<Expression> args = CollectionConverters.asJava(arguments);
        arity(FIRST, args, 3, 4);
        int onUnclosed = args.size() > 3 ? onUnclosed(FIRST, args.get(3)) : Rows.RAISE;
        return invoke(
                FIRST,
                args,
                "first",
                DataTypes.StringType,
                args.get(0),
                markers(FIRST, args),
                Literal.create(onUnclosed, DataTypes.IntegerType));
    }

    /**
     * The call of {@code Rows.method}, named as Spark names its own functions' columns
     * ({@code extract_between_all(html, <b>, </b>)}) rather than by the method it calls.
     */
    private static Expression invoke(
            String function,
            List<Expression> given,
            String method,
            DataType type,
            Expression text,
            Expression[] markers,
            Expression... options) {
        List<Expression> args = new ArrayList<>(List.of(text, markers[0], markers[1]));
        args.addAll(List.of(options));
        List<AbstractDataType> types = new ArrayList<>();
        for (Expression arg : args) {
            // A text of any collation is taken as it is (its bytes are UTF-8 whatever the
            // collation; the markers match byte for byte, the card's equality); another type
            // is cast to a string as Spark's own string functions cast it.
            boolean string = arg.dataType() instanceof StringType;
            types.add(arg == text && !string ? DataTypes.StringType : arg.dataType());
        }
        List<String> shown = new ArrayList<>();
        for (Expression arg : given.subList(3, given.size())) {
            shown.add(org.apache.spark.sql.catalyst.util.package$.MODULE$.toPrettySQL(arg, false));
        }
        return new Call(
                function,
                type,
                method,
                CollectionConverters.asScala(args).toList(),
                CollectionConverters.asScala(types).toList(),
                shown);
    }

    /**
     * Throws an {@code AnalysisException} naming the function and why. Scala code throws it
     * as any exception; Java calls it checked, so it is thrown from here, past the compiler.
     */
    static RuntimeException error(String function, String message) {
        // Spark's error class for a message of the caller's own words.
        scala.collection.immutable.Map<String, String> parameters = scala.collection.immutable.Map$.MODULE$.from(
                CollectionConverters.asScala(java.util.Map.of("errorMessage", function + ": " + message)));
        return Functions.<RuntimeException>raise(new AnalysisException("_LEGACY_ERROR_TEMP_1332", parameters));
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E raise(Throwable e) throws E {
        throw (E) e;
    }

    private static void arity(String function, List<Expression> args, int least, int most) {
        if (args.size() < least || args.size() > most) {
            throw error(function, "takes " + least + " to " + most + " arguments, not " + args.size());
        }
    }

    /** The value of a constant argument, or an error naming it. */
    private static Object constant(String function, Expression arg, String name) {
        if (!arg.foldable()) {
            throw error(function, name + " must be a constant (a literal), not " + arg.sql());
        }
        return arg.eval(null);
    }

    /** The start and end markers as literals, checked against the card. */
    private static Expression[] markers(String function, List<Expression> args) {
        byte[][] bytes = new byte[2][];
        String[] names = {"start", "end"};
        for (int i = 0; i < 2; i++) {
            Expression arg = args.get(1 + i);
            if (!(arg.dataType() instanceof StringType)) {
                throw error(function, names[i] + " must be a string, not " + arg.dataType().sql());
            }
            Object value = constant(function, arg, names[i]);
            if (value == null) {
                throw error(function, names[i] + " must be a string, not NULL");
            }
            bytes[i] = ((UTF8String) value).getBytes();
        }
        try {
            Native.ensureLoaded();
        } catch (UnsupportedOperationException e) {
            throw error(function, e.getMessage());
        }
        byte[] why = Native.check(bytes[0], bytes[1]);
        if (why != null) {
            throw error(function, new String(why, StandardCharsets.UTF_8));
        }
        return new Expression[] {
            Literal.create(UTF8String.fromBytes(bytes[0]), DataTypes.StringType),
            Literal.create(UTF8String.fromBytes(bytes[1]), DataTypes.StringType)
        };
    }

    /** {@code max_matches}: a positive integer, or NULL for no cap. */
    private static long cap(Expression arg) {
        DataType type = arg.dataType();
        if (type instanceof NullType) {
            return Long.MAX_VALUE;
        }
        boolean integral = type instanceof IntegerType || type instanceof LongType
                || type instanceof ShortType || type instanceof ByteType;
        if (!integral) {
            throw error(ALL, "max_matches must be an integer from 1 to " + Long.MAX_VALUE + " or NULL, not " + type.sql());
        }
        Object value = constant(ALL, arg, "max_matches");
        if (value == null) {
            return Long.MAX_VALUE;
        }
        long cap = ((Number) value).longValue();
        if (cap < 1) {
            throw error(ALL, "max_matches must be an integer from 1 to " + Long.MAX_VALUE + " or NULL, not " + cap);
        }
        return cap;
    }

    /**
     * {@code on_unclosed}: the constant string 'raise', 'null' or 'partial'; NULL is the
     * default, 'raise' (as in the DuckDB functions and the Python package). Anything else is
     * refused here, never read as a policy.
     */
    private static int onUnclosed(String function, Expression arg) {
        String choices = "on_unclosed must be 'raise', 'null' or 'partial'";
        if (arg.dataType() instanceof NullType) {
            constant(function, arg, "on_unclosed");
            return Rows.RAISE;
        }
        if (!(arg.dataType() instanceof StringType)) {
            throw error(function, choices + " (a string), not " + arg.dataType().sql() + " " + arg.sql());
        }
        Object value = constant(function, arg, "on_unclosed");
        if (value == null) {
            return Rows.RAISE;
        }
        switch (value.toString()) {
            case "raise":
                return Rows.RAISE;
            case "null":
                return Rows.NULL;
            case "partial":
                return Rows.PARTIAL;
            default:
                throw error(function, choices + ", not " + arg.sql());
        }
    }
}
